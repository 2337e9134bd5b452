"""pyscript.toml must list exactly the modules under py/ (it is generated; never hand-edited)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tools import gen_pyscript_toml

ROOT = Path(__file__).resolve().parent.parent


def test_committed_pyscript_toml_is_current() -> None:
    expected = gen_pyscript_toml.render(ROOT / "py")
    actual = (ROOT / "pyscript.toml").read_text(encoding="utf-8")
    assert actual == expected, (
        "pyscript.toml is out of date with py/: run `python tools/gen_pyscript_toml.py`"
        " (make serve does it) and commit the result"
    )


def test_config_points_at_vendored_runtime_and_every_module() -> None:
    config = tomllib.loads((ROOT / "pyscript.toml").read_text(encoding="utf-8"))
    # pyodide.mjs wrapped to start from the memory snapshot (tools/pyodide_boot.mjs).
    assert config["interpreter"] == "./vendor/pyodide/boot.mjs"
    assert "packages" not in config  # the npm Pyodide ships no wheels to install
    files = config.get("files", {})
    vendored = set(gen_pyscript_toml.vendored_files())
    for source, target in files.items():
        if target in vendored:  # copied by tools/vendor.py from the pinned PyPI package
            assert source == f"./vendor/{target}"
            assert (ROOT / source).is_file(), f"{source}: run tools/vendor.py"
        else:
            assert (ROOT / source).is_file(), source
            assert source == f"./py/{target}"


def test_generator_maps_packages_and_skips_entry_script_and_caches(tmp_path: Path) -> None:
    py = tmp_path / "py"
    for rel in (
        "main.py",
        "ludo/__init__.py",
        "ludo/rules/base.py",
        "app/__init__.py",
        "ludo/__pycache__/x.py",
        "ludo/notes.txt",
    ):
        (py / rel).parent.mkdir(parents=True, exist_ok=True)
        (py / rel).write_text("")
    files = tomllib.loads(gen_pyscript_toml.render(py, vendored=()))["files"]
    assert files == {
        "./py/app/__init__.py": "app/__init__.py",
        "./py/ludo/__init__.py": "ludo/__init__.py",
        "./py/ludo/rules/base.py": "ludo/rules/base.py",
    }
