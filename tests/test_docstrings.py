"""Docstrings render in the API page (book/api.md, Sphinx autodoc): a bare ``|x|`` in a docstring is an
RST substitution reference, which fails the book build (-W). Catch it here, per docstring, in seconds."""

import ast
import io
from pathlib import Path

import docutils.core

LIB = Path(__file__).resolve().parents[1] / "lib"


def _substitution_problems(text: str) -> list[str]:
    messages = io.StringIO()
    docutils.core.publish_doctree(text, settings_overrides={"warning_stream": messages, "report_level": 2})
    return [line for line in messages.getvalue().splitlines() if "substitution" in line]


def test_the_check_finds_a_bare_absolute_value():
    assert _substitution_problems("accuracy is |r| within scale")
    assert not _substitution_problems("accuracy is ``|r|`` within scale; a = ||dh||^2")


def _lib_docstrings():
    """(where, docstring) of every module, class and function of lib that has one."""
    for path in sorted(LIB.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))]:
            doc = ast.get_docstring(node)
            if doc:
                yield f"{path.relative_to(LIB.parent)}:{getattr(node, 'name', 'module')}", doc


def test_no_docstring_in_lib_holds_an_rst_substitution():
    found = [f"{where}: {p}" for where, doc in _lib_docstrings() if "|" in doc for p in _substitution_problems(doc)]
    assert not found, "\n".join(found)


def test_no_docstring_in_lib_holds_a_glue_role():
    """The API pages render docstrings as MyST: a ``{glue:...}`` role there looks up a glued value the
    API page does not have, and the book build (-W) fails."""
    found = [where for where, doc in _lib_docstrings() if "{glue" in doc]
    assert not found, found
