"""The kernels of the runner's papermill executions, and how a notebook tells a person at a live
frontend from a headless run (:func:`interactive_frontend`).

The kernel manager (:class:`QuietKernelManager`) starts a plain Jupyter kernel that prints
nothing on a successful run, as nice as the process that starts it.

Two messages that ipykernel and jupyter_client print by default read as failures in a build log
and are silenced here at their source, not by hiding stderr (a real error still shows):

* ``Kernel is running over TCP without encryption`` — ipykernel warns when its sockets are TCP
  ports. The runner's kernels are local, so they talk over IPC (Unix domain) sockets instead,
  which nothing outside this machine's user can reach.
* ``KeyboardInterrupt caught in kernel`` — jupyter_client interrupts a kernel before shutting it
  down, and an idle kernel logs the interrupt as an error. Our kernels are shut down only after
  the last cell finished (or failed), so the shutdown skips the interrupt; a kernel that does not
  answer the shutdown request is still killed by jupyter_client.
"""

from __future__ import annotations

import os
import tempfile
import uuid

from typing import Any

from jupyter_client import AsyncKernelManager
from traitlets import CaselessStrEnum, default

from .concurrent_runs import nice_process


class QuietKernelManager(AsyncKernelManager):
    """:class:`jupyter_client.AsyncKernelManager` over IPC sockets, without the shutdown interrupt."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    @default("ip")
    def _unique_ipc_path(self) -> str:
        if self.transport != "ipc":
            return super()._ip_default()
        return os.path.join(tempfile.gettempdir(), f"repro-kernel-{uuid.uuid4().hex[:12]}-ipc")

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        """Launch the kernel; a kernel started by a niced process (a background run of
        :mod:`lib.book.concurrent_runs`) is as nice as it, its own session's scheduling group included
        (jupyter_client starts every kernel in a session of its own)."""
        await super()._async_launch_kernel(kernel_cmd, **kw)
        niceness = os.getpriority(os.PRIO_PROCESS, 0)
        if niceness > 0 and getattr(self.provisioner, "pid", None):
            nice_process(self.provisioner.pid, niceness)

    async def _async_interrupt_kernel(self) -> None:
        if not self.shutting_down:
            await super()._async_interrupt_kernel()


def interactive_frontend(shell: Any = None) -> bool:
    """Whether the cell running now was sent by a frontend a person works in (JupyterLab, Notebook,
    VS Code): one that accepts ``input()`` (``allow_stdin`` in its execute request). A headless run
    (papermill, nbclient, ``jupyter nbconvert --execute``, the runner) sends ``allow_stdin: false``,
    and outside a kernel (plain Python) there is no frontend at all: both are False, so a notebook
    shows live widgets only where someone can use them and never waits on them in a batch run.
    ``shell``: the IPython shell (default: the running one)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return False
    parent = kernel.get_parent() or {}
    return bool(parent.get("content", {}).get("allow_stdin", False))
