"""py.zip (tools/build_pybundle.py): the page's modules in one archive, with their bytecode.

- It holds exactly the modules tools/gen_pyscript_toml.py says the page needs, each at its
  import path, and beside each its bytecode where the zip importer looks for it ("x.pyc"): an
  unchecked-hash .pyc (PEP 552) of the vendored Pyodide's Python, whose cache tag the
  archive's comment names, so the browser's importer uses it as it is.
- It is rebuilt when a module changes (check says so before), byte for byte the same otherwise,
  and the service worker's cache version follows it.
- It is part of the site: served with its type, copied into dist/.
The browser side (the page boots from it, runs its bytecode) is tests/e2e/test_pybundle_boot.py.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import build_dist, build_pybundle, build_sw, gen_pyscript_toml

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "vendor" / "pyodide"
needs_compiler = pytest.mark.skipif(
    shutil.which("node") is None or not (PYODIDE / "pyodide.mjs").is_file(),
    reason="no node or no vendored Pyodide (tools/vendor.py) to compile with")


def _site(root: Path) -> None:
    """py/ and the vendored segno of this checkout under `root`, the runtime linked."""
    shutil.copytree(ROOT / "py", root / "py",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (root / "vendor").mkdir()
    shutil.copytree(ROOT / "vendor" / "segno", root / "vendor" / "segno")
    if PYODIDE.is_dir():
        (root / "vendor" / "pyodide").symlink_to(PYODIDE)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the site's sources with py.zip built (once: compiling takes seconds)."""
    root = tmp_path_factory.mktemp("site")
    _site(root)
    assert build_pybundle.write(root)
    yield root


def _python_tag() -> str:
    """The cache tag of the vendored Pyodide's Python ("cpython-314")."""
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))
    major, minor = lock["info"]["python"].split(".")[:2]
    return f"cpython-{major}{minor}"


def test_the_archive_holds_exactly_the_modules_the_page_needs(built: Path) -> None:
    expected = gen_pyscript_toml.module_files(built)
    with zipfile.ZipFile(built / "py.zip") as archive:
        sources = {n for n in archive.namelist() if n.endswith(".py")}
        assert sources == set(expected)
        for rel, path in expected.items():
            assert archive.read(rel) == path.read_bytes(), rel
        assert not [n for n in archive.namelist() if not n.endswith((".py", ".pyc"))]
    assert "main.py" not in sources  # the entry script comes by its own <script src>
    assert "ludo/cli.py" not in sources and "segno/encoder.py" in sources


@needs_compiler
def test_each_module_has_unchecked_hash_bytecode_for_the_browsers_python(built: Path) -> None:
    tag = _python_tag()
    with zipfile.ZipFile(built / "py.zip") as archive:
        names = archive.namelist()
        compiled = {n for n in names if n.endswith(".pyc")}
        for source in (n for n in names if n.endswith(".py")):
            pyc = source[:-3] + ".pyc"
            assert pyc in compiled, pyc
            header = archive.read(pyc)[:16]
            # PEP 552 flags: bit 0 = hash-based, bit 1 = check the source: 0b01, never checked
            assert int.from_bytes(header[4:8], "little") == 0b01, pyc
        assert len(compiled) == len(names) - len(compiled)
        assert archive.comment == f"bytecode for {tag}".encode()


@needs_compiler
def test_rebuilt_when_a_module_changes_and_not_otherwise(built: Path, tmp_path: Path) -> None:
    assert build_pybundle.main(["--root", str(built), "--check"]) == 0
    assert not build_pybundle.write(built)  # nothing changed: not even rewritten
    rebuilt = tmp_path / "site"
    shutil.copytree(built, rebuilt, symlinks=True)
    engine = rebuilt / "py" / "ludo" / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\nEDITED = True\n", encoding="utf-8")
    assert build_pybundle.main(["--root", str(rebuilt), "--check"]) == 1
    assert build_pybundle.write(rebuilt)
    pyc = "ludo/engine.pyc"
    with zipfile.ZipFile(rebuilt / "py.zip") as archive:
        assert archive.read("ludo/engine.py").endswith(b"EDITED = True\n")
        edited = archive.read(pyc)
    with zipfile.ZipFile(built / "py.zip") as archive:
        assert edited != archive.read(pyc)


@needs_compiler
def test_bytecode_of_another_python_is_out_of_date(built: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Vendoring a Pyodide of another Python version: the sources did not change, the archive
    # must be rebuilt all the same (its .pyc files would be refused, and compiled again from
    # source at every start).
    assert build_pybundle.is_current(built)
    monkeypatch.setattr(build_pybundle, "cache_tag", lambda _root: "cpython-399")
    assert not build_pybundle.is_current(built)
    assert build_pybundle.main(["--root", str(built), "--check"]) == 1


def test_the_same_sources_give_the_same_bytes(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The service worker's cache version hashes py.zip: a rebuild of unchanged code must not
    # make every player download the app again.
    monkeypatch.setattr(build_pybundle.shutil, "which", lambda _name: None)
    archives = []
    for name in ("one", "two"):
        _site(tmp_path / name)
        assert build_pybundle.write(tmp_path / name)
        archives.append((tmp_path / name / "py.zip").read_bytes())
    assert archives[0] == archives[1]


def test_without_node_the_archive_holds_the_sources(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _site(tmp_path)
    monkeypatch.setattr(build_pybundle.shutil, "which", lambda _name: None)
    assert build_pybundle.write(tmp_path)
    with zipfile.ZipFile(tmp_path / "py.zip") as archive:
        assert not [n for n in archive.namelist() if n.endswith(".pyc")]
        assert set(archive.namelist()) == set(gen_pyscript_toml.module_files(tmp_path))
        assert archive.comment == b""


def test_a_missing_module_is_an_error_that_says_so(tmp_path: Path) -> None:
    _site(tmp_path)
    shutil.rmtree(tmp_path / "vendor" / "segno")
    with pytest.raises(build_pybundle.BundleError, match="segno"):
        build_pybundle.write(tmp_path)


@pytest.mark.skipif(not (PYODIDE / "pyodide.mjs").is_file(), reason="no vendored runtime")
def test_the_service_worker_precaches_the_archive_and_its_version_follows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A copy of the site's page files, with a sources-only archive (quick to build).
    monkeypatch.setattr(build_pybundle.shutil, "which", lambda _name: None)
    _site(tmp_path)
    for name in ("index.html", "pyscript.toml", "manifest.webmanifest"):
        shutil.copy2(ROOT / name, tmp_path / name)
    for folder in ("css", "icons"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copytree(ROOT / "vendor" / "pyscript", tmp_path / "vendor" / "pyscript")
    build_pybundle.write(tmp_path)
    app = build_sw.TARGETS["app"]
    files = build_sw.precache_files(tmp_path, app)
    assert "py.zip" in files and "py/main.py" in files
    # the modules come in the archive only: not precached (nor fetched) one by one
    assert not [f for f in files if f.startswith(("py/ludo/", "py/app/", "vendor/segno/"))]
    template = build_sw.TEMPLATE.read_text(encoding="utf-8")
    before = build_sw.build_info(tmp_path, app, template)["version"]
    (tmp_path / "py" / "ludo" / "rng.py").write_text("# edited\n", encoding="utf-8")
    build_pybundle.write(tmp_path)
    assert build_sw.build_info(tmp_path, app, template)["version"] != before


@pytest.mark.skipif(not (PYODIDE / "pyodide.mjs").is_file(), reason="no vendored runtime")
def test_dist_builds_and_ships_the_archive(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "src"
    source.mkdir()
    shutil.copytree(ROOT / "py", source / "py",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (source / "vendor").symlink_to(ROOT / "vendor")  # as in a worktree: the runtime is big
    for name in ("index.html", "pyscript.toml", "manifest.webmanifest"):
        shutil.copy2(ROOT / name, source / name)
    for folder in ("css", "icons"):
        shutil.copytree(ROOT / folder, source / folder)
    monkeypatch.setattr(build_pybundle.shutil, "which", lambda _name: None)
    build_dist.build(source, tmp_path / "dist")
    shipped = tmp_path / "dist" / "py.zip"
    assert shipped.read_bytes() == (source / "py.zip").read_bytes()
    assert '"./py.zip"' in (tmp_path / "dist" / "sw.js").read_text(encoding="utf-8")


def test_the_dev_server_says_when_py_zip_does_not_hold_todays_modules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `python -m server` serves py.zip as it was last built: after an edit of py/ without
    # `make serve` the page ran the old modules without a word (pybundle review).
    from server.__main__ import stale_modules

    _site(tmp_path)
    shutil.copy(ROOT / "pyscript.toml", tmp_path / "pyscript.toml")
    assert stale_modules(tmp_path)  # never built
    monkeypatch.setattr(build_pybundle.shutil, "which", lambda _name: None)  # (quicker)
    assert build_pybundle.write(tmp_path)
    assert not stale_modules(tmp_path)
    module = tmp_path / "py" / "app" / "panel.py"
    module.write_text(module.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert stale_modules(tmp_path)
    assert build_pybundle.write(tmp_path)
    assert not stale_modules(tmp_path)
    # a served copy without py/ (dist/) is what it is: nothing to compare
    dist = tmp_path / "dist"
    dist.mkdir()
    shutil.copy(tmp_path / "pyscript.toml", dist / "pyscript.toml")
    assert not stale_modules(dist)
