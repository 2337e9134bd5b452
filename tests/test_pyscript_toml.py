"""pyscript.toml must give the page exactly the modules under py/ it needs (it is generated, never
hand-edited): through py.zip, the archive tools/build_pybundle.py packs them into."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tools import gen_pyscript_toml

ROOT = Path(__file__).resolve().parent.parent


def test_committed_pyscript_toml_is_current() -> None:
    expected = gen_pyscript_toml.render()
    actual = (ROOT / "pyscript.toml").read_text(encoding="utf-8")
    assert actual == expected, (
        "pyscript.toml is out of date: run `python tools/gen_pyscript_toml.py`"
        " (make serve does it) and commit the result"
    )


def test_config_points_at_vendored_runtime_and_the_modules_archive() -> None:
    config = tomllib.loads((ROOT / "pyscript.toml").read_text(encoding="utf-8"))
    # pyodide.mjs wrapped to start from the memory snapshot (tools/pyodide_boot.mjs).
    assert config["interpreter"] == "./vendor/pyodide/boot.mjs"
    assert "packages" not in config  # the npm Pyodide ships no wheels to install
    # One archive, written as it is into Python's working directory (not "/*", PyScript's
    # syntax for unpacking it file by file at every boot); no module mapped one by one, which
    # would fetch it a second time. The entry script imports from that file.
    assert config["files"] == {"./py.zip": "./py.zip"}
    main = (ROOT / "py" / "main.py").read_text(encoding="utf-8")
    assert 'sys.path.insert(0, os.path.abspath("py.zip"))' in main
    assert main.index("sys.path.insert") < main.index("from app.")


def test_every_module_of_py_and_segno_is_in_the_page_but_entry_script_and_command_line(
) -> None:
    files = gen_pyscript_toml.module_files(ROOT)
    on_disk = {p.relative_to(ROOT / "py").as_posix() for p in (ROOT / "py").rglob("*.py")
               if "__pycache__" not in p.parts}
    left_out = gen_pyscript_toml.ENTRY_SCRIPTS | gen_pyscript_toml.COMMAND_LINE_ONLY
    assert {rel for rel in files if not rel.startswith("segno/")} == on_disk - left_out
    assert "segno/__init__.py" in files and "segno/cli.py" not in files
    for rel, path in files.items():
        assert path.is_file(), f"{path}: run tools/vendor.py"
        assert path.as_posix().endswith(rel)


def test_generator_maps_packages_and_skips_entry_script_and_caches(tmp_path: Path) -> None:
    py = tmp_path / "py"
    for rel in (
        "main.py",
        "ludo/__init__.py",
        "ludo/cli.py",
        "ludo/rules/base.py",
        "app/__init__.py",
        "ludo/__pycache__/x.py",
        "ludo/notes.txt",
    ):
        (py / rel).parent.mkdir(parents=True, exist_ok=True)
        (py / rel).write_text("")
    files = gen_pyscript_toml.module_files(tmp_path, vendored=())
    assert files == {
        "app/__init__.py": py / "app/__init__.py",
        "ludo/__init__.py": py / "ludo/__init__.py",
        "ludo/rules/base.py": py / "ludo/rules/base.py",
    }
