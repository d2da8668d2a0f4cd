"""The type stubs (lidx/__init__.pyi) describe what the module has: every
name and method they declare exists, every public method of the classes is
declared, and every public callable has a docstring (its own or, for
LineFile, io.RawIOBase's)."""

import ast
import inspect
from pathlib import Path

import lidx

STUB = ast.parse((Path(lidx.__file__).parent / "__init__.pyi").read_text())
RUNTIME_CLASSES = ["Index", "Matches", "Follower", "LineFile", "Family", "Member", "Merged", "Partition"]


def stub_classes():
    return {n.name: n for n in STUB.body if isinstance(n, ast.ClassDef)}


def stub_members(cls: ast.ClassDef) -> set:
    names = set()
    for n in cls.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return names


def test_declared_names_exist(tmp_path):
    text = tmp_path / "t.log"
    text.write_bytes(b"2026-01-01T00:00:00Z a\n2026-01-01T00:00:01Z b\n")
    idx = lidx.Index(text, time=True)
    family = lidx.Family(text)
    instances = {
        "Index": idx,
        "Matches": idx.grep("a"),
        "Follower": idx.follow(),
        "LineFile": idx.open(),
        "Family": family,
        "Member": family.members[0],
        "Merged": lidx.merge([idx]),
        "Partition": idx.partitions()[0],
    }
    for n in STUB.body:
        if isinstance(n, ast.FunctionDef):
            assert callable(getattr(lidx, n.name)), n.name
    for name in lidx.__all__:
        assert hasattr(lidx, name), name
    classes = stub_classes()
    for name in RUNTIME_CLASSES:
        assert name in classes, f"{name} is not in the stub"
        assert isinstance(instances[name], getattr(lidx, name))
        for member in stub_members(classes[name]):
            assert hasattr(instances[name], member), f"{name}.{member} is in the stub only"


def test_public_methods_are_declared():
    classes = stub_classes()
    for name in ["Index", "Matches", "Follower", "Family", "Member", "Merged", "Partition"]:
        runtime = getattr(lidx, name)
        public = {m for m in dir(runtime) if not m.startswith("_")}
        missing = public - stub_members(classes[name])
        assert not missing, f"{name}: not in the stub: {sorted(missing)}"
    # LineFile: its own methods, not io.RawIOBase's.
    own = {m for m, _ in inspect.getmembers(lidx.LineFile) if not m.startswith("_")}
    own -= set(dir(lidx.LineFile.__mro__[1]))
    missing = own - stub_members(classes["LineFile"])
    assert not missing, f"LineFile: not in the stub: {sorted(missing)}"


def test_exceptions_are_declared():
    classes = stub_classes()
    for name in lidx.__all__:
        obj = getattr(lidx, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert name in classes or any(
                isinstance(n, ast.ImportFrom) and any(a.name == name for a in n.names)
                for n in STUB.body
            ), f"exception {name} is not in the stub"


def test_every_public_callable_has_a_docstring():
    for name in RUNTIME_CLASSES:
        cls = getattr(lidx, name)
        assert cls.__doc__, name
        for m in dir(cls):
            if m.startswith("_"):
                continue
            attr = getattr(cls, m)
            if callable(attr) or isinstance(attr, property):
                assert inspect.getdoc(attr), f"{name}.{m} has no docstring"
    assert lidx.open.__doc__ and lidx.__doc__
