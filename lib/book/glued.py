"""The texts a page's prose quotes: each glued into the page under its name, which the prose's
``glue:text`` role then quotes.

Book layer. A chapter's ``lib`` functions return its texts as a dict name -> text (for example
:func:`lib.book.representation_report.entk_large_texts`), so that the formatting is tested where it is
written; :func:`glue_texts` hands them to MyST-NB without displaying them.
"""

from __future__ import annotations

from collections.abc import Mapping


def glue_texts(texts: Mapping[str, str]) -> None:
    """Glue every ``name -> text`` of ``texts`` into the running notebook (not displayed where it is
    glued: the prose shows it); a text that is not a string is refused before anything is glued."""
    wrong = {name: type(text).__name__ for name, text in texts.items() if not isinstance(text, str)}
    if wrong:
        raise TypeError(f"texts must map glue names to strings; not strings: {wrong}")
    from myst_nb import glue

    for name, text in texts.items():
        glue(name, text, display=False)
