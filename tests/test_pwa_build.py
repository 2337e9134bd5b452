"""Offline and installable, without a browser: the manifest, the icons and the precache list.

The browser side (the service worker at work, updates, Install) is tests/e2e/test_offline.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

import pytest
from PIL import Image

from tools import build_icons, build_sw

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "manifest.webmanifest"
APP = build_sw.TARGETS["app"]
VENDORED = (ROOT / "vendor" / "pyodide" / "pyodide.mjs").is_file()
needs_vendor = pytest.mark.skipif(not VENDORED, reason="vendor/ missing: run make test")


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def css_var(name: str) -> str:
    css = (ROOT / "css" / "app.css").read_text(encoding="utf-8")
    match = re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{3,8}})", css)
    assert match, name
    return match.group(1).lower()


# -- manifest -------------------------------------------------------------------------------------


def test_manifest_has_the_fields_an_installable_app_needs() -> None:
    data = manifest()
    for key in ("name", "short_name", "description", "start_url", "scope", "display",
                "orientation", "theme_color", "background_color", "icons", "categories"):
        assert data.get(key), key
    assert data["display"] == "standalone"
    assert len(data["short_name"]) <= 12  # what fits under an icon on a home screen
    assert "games" in data["categories"]
    # The colours are the page's: the header bar and the page background.
    assert data["theme_color"].lower() == css_var("accent")
    assert data["background_color"].lower() == css_var("bg")
    html = (ROOT / "index.html").read_text(encoding="utf-8")
    assert f'name="theme-color" content="{data["theme_color"]}"' in html


def test_the_descriptions_name_every_way_to_play() -> None:
    """The install dialog and search results describe the app the seed specifies (seed 000:
    pass-and-play, computer and online players), not pass-and-play alone; and offline play
    is not promised for online rooms ("Online rooms need an internet connection.")."""
    html = (ROOT / "index.html").read_text(encoding="utf-8")
    meta = re.search(r'<meta name="description" content="([^"]*)">', html)
    assert meta
    for text in (manifest()["description"], meta.group(1)):
        for way in ("pass-and-play", "computer", "online"):
            assert way in text, (way, text)
    assert "online rooms need an internet connection" in manifest()["description"]


def test_start_url_and_id_are_inside_scope() -> None:
    data = manifest()
    base = "https://example.test/some/path/manifest.webmanifest"  # wherever the site is
    scope = urljoin(base, data["scope"])
    start_url = urljoin(base, data["start_url"])
    assert start_url.startswith(scope)
    # The app's identity: an `id` resolves against the start URL's origin, not the manifest
    # (so "./" would name the origin's root, the same app for every copy on the origin);
    # without one it is the start URL, the folder the site is in.
    app_id = urljoin(urljoin(start_url, "/"), data["id"]) if "id" in data else start_url
    assert app_id.startswith(scope)
    # the page the start URL opens is the one that links this manifest
    assert urljoin(base, data["start_url"]) in (scope, scope + "index.html")


def test_icons_exist_at_their_declared_sizes() -> None:
    data = manifest()
    purposes: dict[str, set[int]] = {"any": set(), "maskable": set()}
    for icon in data["icons"]:
        path = ROOT / icon["src"]
        assert path.is_file(), f"{icon['src']} missing: run make (tools/build_icons.py)"
        for purpose in icon.get("purpose", "any").split():
            if icon["sizes"] == "any":
                assert icon["type"] == "image/svg+xml"
                continue
            width, height = (int(v) for v in icon["sizes"].split("x"))
            assert icon["type"] == "image/png"
            with Image.open(path) as image:
                assert image.format == "PNG"
                assert image.size == (width, height), icon["src"]
            purposes[purpose].add(width)
    assert {192, 512} <= purposes["any"]
    assert {192, 512} <= purposes["maskable"]


def test_apple_touch_icon_is_opaque_180() -> None:
    html = (ROOT / "index.html").read_text(encoding="utf-8")
    href = re.search(r'<link rel="apple-touch-icon" href="\./([^"]+)"', html).group(1)
    with Image.open(ROOT / href) as image:
        assert image.size == (180, 180)
        assert image.mode == "RGB"  # iOS shows transparency as black


def test_maskable_icons_keep_the_drawing_in_the_safe_zone() -> None:
    """Outside the central circle of radius 0.4 (what any launcher mask keeps), only the
    background colour: cropping to a circle loses nothing of the board."""
    background = tuple(int(css_var("accent")[i:i + 2], 16) for i in (1, 3, 5))
    for name in ("maskable-192.png", "maskable-512.png"):
        with Image.open(ROOT / "icons" / name) as image:
            rgb = image.convert("RGB")
            size = rgb.size[0]
            centre, radius = (size - 1) / 2, 0.4 * size
            outside = [
                rgb.getpixel((x, y))
                for y in range(size)
                for x in range(size)
                if (x - centre) ** 2 + (y - centre) ** 2 > radius**2
            ]
            # (the drawing's own plate, in the same colour, blurs its edge by one unit)
            worst = max(
                abs(a - b) for pixel in outside for a, b in zip(pixel, background, strict=True)
            )
            assert worst <= 2, name
            # ...and the board really is drawn inside it
            assert rgb.getpixel((size // 2, size // 2)) != background


def test_icons_are_rendered_from_the_current_svg() -> None:
    assert build_icons.build(ROOT / "icons", check=True) == [], "run python tools/build_icons.py"


def test_full_bleed_icon_keeps_the_source_drawing_and_fills_the_square() -> None:
    source = (ROOT / "icons" / "icon.svg").read_text(encoding="utf-8")
    svg = build_icons.full_bleed(source, 0.5)
    assert "scale(0.5)" in svg and "<title" not in svg
    assert svg.count("<circle") == source.count("<circle")


# -- precache list --------------------------------------------------------------------------------


@needs_vendor
def test_app_precache_holds_the_page_runtime_and_the_modules_archive() -> None:
    files = build_sw.precache_files(ROOT, APP)
    for rel in ("index.html", "manifest.webmanifest", "pyscript.toml", "css/app.css",
                "icons/icon.svg", "icons/apple-touch-icon.png", "icons/maskable-512.png",
                "vendor/pyscript/core.js", "vendor/pyscript/core.css"):
        assert rel in files, rel
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json"):
        assert f"vendor/pyodide/{name}" in files
    # the entry script, and every other module in one archive (tools/build_pybundle.py)
    assert "py/main.py" in files and "py.zip" in files
    # PyScript's core chunk and the plugins it loads at boot, found through core.js's imports
    chunks = {f for f in files if f.startswith("vendor/pyscript/")}
    assert any(re.fullmatch(r"vendor/pyscript/core-[\w-]+\.js", f) for f in chunks)
    for plugin in ("py-terminal", "py-editor", "error", "donkey"):
        assert any(f.startswith(f"vendor/pyscript/{plugin}-") for f in chunks), plugin
    # ...but not what optional plugins load only when used (the terminal's xterm)
    assert not any("xterm" in f for f in chunks)
    assert all(not f.endswith((".map", ".stamp")) for f in files)


@needs_vendor
def test_sw_lists_every_file_with_its_hash_and_a_versioned_cache() -> None:
    template = build_sw.TEMPLATE.read_text(encoding="utf-8")
    info = build_sw.build_info(ROOT, APP, template)
    files = build_sw.precache_files(ROOT, APP)
    assert set(info["files"]) == {f"./{rel}" for rel in files}
    for rel in ("index.html", "vendor/pyodide/pyodide.asm.wasm"):
        digest = hashlib.sha256((ROOT / rel).read_bytes()).hexdigest()
        assert info["files"][f"./{rel}"] == digest[: build_sw.HASH_CHARS]
    assert info["cache"] == f"courtyard-ludo-{info['version']}"
    assert info["index"] == "./index.html"
    text = build_sw.render(ROOT, APP)
    assert json.dumps(info, indent=2) in text
    assert "__BUILD__" not in text


def test_worker_code_is_offline_first_and_never_skips_waiting_by_itself() -> None:
    code = build_sw.TEMPLATE.read_text(encoding="utf-8")
    assert "ignoreSearch: true" in code
    # skipWaiting only when a page asks (the player accepted the update)
    calls = [m.start() for m in re.finditer(r"skipWaiting\(\)", code)]
    assert len(calls) == 1
    assert code.rfind('data.type === "SKIP_WAITING"', 0, calls[0]) != -1
    install = code[code.index('addEventListener("install"'):]
    assert "skipWaiting" not in install[: install.index("});")]



def test_the_boot_watch_runs_before_the_page_loads_anything() -> None:
    """index.html's boot watch (docs/offline.md, "A damaged copy") sees a damaged file only
    through the errors its loading raises, and keeps the worker's messages until pwa.py
    listens: so it is the first thing the page runs, before any stylesheet or module loads."""
    html = (ROOT / "index.html").read_text(encoding="utf-8")
    first_load = min(html.index('<link rel="stylesheet"'), html.index('<script type="module"'))
    assert html.index("window.ludoWorkerMessages = [];") < first_load
    assert html.index('addEventListener("error", check, true)') < first_load
    assert html.index('postMessage({ type: "CHECK_ALL" }') < first_load
    # the worker answers it, on the port the page gives
    code = build_sw.TEMPLATE.read_text(encoding="utf-8")
    assert 'data.type === "CHECK_ALL" && event.ports[0]' in code

def _tiny_site(root: Path) -> None:
    """A page with every kind of reference the collector follows."""
    (root / "lib").mkdir(parents=True)
    (root / "rt").mkdir()
    (root / "py" / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "index.html").write_text(
        '<link rel="stylesheet" href="./a.css"><link rel="manifest" href="m.json">'
        '<link rel="icon" href="data:,"><link rel="preconnect" href="https://cdn.test/">'
        '<script type="module" src="./lib/core.js"></script>'
        '<script src="https://cdn.test/x.js"></script>'
        '<script type="py" src="./py/main.py" config="./conf.toml"></script>'
        '<a href="./other.html">not loaded</a>'
    )
    (root / "a.css").write_text('@import "b.css"; body { background: url(img/bg.png); }')
    (root / "b.css").write_text("p { background: url('data:image/png;base64,xx') }")
    (root / "img").mkdir()
    (root / "img" / "bg.png").write_bytes(b"png")
    (root / "icon.png").write_bytes(b"png")
    (root / "m.json").write_text('{"icons": [{"src": "icon.png"}]}')
    (root / "lib" / "core.js").write_text('export{a}from"./chunk.js";')
    (root / "lib" / "chunk.js").write_text(
        'import{x}from"./shared.js";const p={t:()=>import("./plugin.js")};')
    (root / "lib" / "shared.js").write_text("export const x=1;")
    (root / "lib" / "plugin.js").write_text(
        'import"./plugin-dep.js";const y=()=>import("./optional.js");')
    (root / "lib" / "plugin-dep.js").write_text("")
    (root / "lib" / "optional.js").write_text("")
    (root / "rt" / "loader.mjs").write_text("")
    (root / "rt" / "runtime.wasm").write_bytes(b"\0asm")
    (root / "rt" / ".stamp").write_text("")
    (root / "conf.toml").write_text(
        'interpreter = "./rt/loader.mjs"\n[files]\n"./py/pkg/mod.py" = "pkg/mod.py"\n')
    (root / "py" / "main.py").write_text("")
    (root / "py" / "pkg" / "mod.py").write_text("")
    (root / "py" / "pkg" / "extra.py").write_text("")
    (root / "py" / "pkg" / "__pycache__" / "mod.py").write_text("")
    (root / "other.html").write_text("")


def test_collector_follows_the_page_and_nothing_else(tmp_path: Path) -> None:
    _tiny_site(tmp_path)
    target = build_sw.Target("index.html", "sw.js", "t", ("py/**/*.py",))
    assert set(build_sw.precache_files(tmp_path, target)) == {
        "index.html", "a.css", "b.css", "img/bg.png", "m.json", "icon.png",
        "lib/core.js", "lib/chunk.js", "lib/shared.js",
        # a dynamic import of a module the page loads outright, with its static imports...
        "lib/plugin.js", "lib/plugin-dep.js",
        # ...but not the on-demand imports of such a plugin ("lib/optional.js")
        "conf.toml", "rt/loader.mjs", "rt/runtime.wasm",
        "py/main.py", "py/pkg/mod.py", "py/pkg/extra.py",
    }


def test_any_change_gives_a_new_version_and_only_that_file_a_new_hash(tmp_path: Path) -> None:
    _tiny_site(tmp_path)
    target = build_sw.Target("index.html", "sw.js", "t", ("py/**/*.py",))
    assert build_sw.write(tmp_path, target)
    assert not build_sw.write(tmp_path, target)  # unchanged: not rewritten
    template = build_sw.TEMPLATE.read_text(encoding="utf-8")
    before = build_sw.build_info(tmp_path, target, template)
    (tmp_path / "py" / "pkg" / "mod.py").write_text("x = 1\n")
    after = build_sw.build_info(tmp_path, target, template)
    assert after["version"] != before["version"]
    changed = {f for f in after["files"] if after["files"][f] != before["files"][f]}
    assert changed == {"./py/pkg/mod.py"}
    assert build_sw.write(tmp_path, target)
    assert f'"cache": "t-{after["version"]}"' in (tmp_path / "sw.js").read_text()


def test_worker_in_a_subfolder_gets_urls_relative_to_itself(tmp_path: Path) -> None:
    _tiny_site(tmp_path)
    (tmp_path / "sub").mkdir()
    shutil.copy(tmp_path / "index.html", tmp_path / "sub" / "index.html")
    (tmp_path / "sub" / "index.html").write_text(
        '<script type="module" src="../lib/core.js"></script>')
    target = build_sw.Target("sub/index.html", "sub/sw.js", "t")
    info = build_sw.build_info(tmp_path, target, "__BUILD__")
    assert info["index"] == "./index.html"
    assert set(info["files"]) == {"./index.html", "../lib/core.js", "../lib/chunk.js",
                                  "../lib/shared.js", "../lib/plugin.js",
                                  "../lib/plugin-dep.js"}


def test_a_missing_reference_fails_the_build(tmp_path: Path) -> None:
    _tiny_site(tmp_path)
    (tmp_path / "icon.png").unlink()
    with pytest.raises(build_sw.BuildError, match="icon.png"):
        build_sw.precache_files(tmp_path, build_sw.Target("index.html", "sw.js", "t"))


@needs_vendor
def test_dist_gets_a_service_worker_for_exactly_its_files(tmp_path: Path) -> None:
    from tools import build_dist

    out = tmp_path / "dist"
    build_dist.build(ROOT, out)
    assert build_sw.main(["--root", str(out), "--check"]) == 0
    info = build_sw.build_info(out, APP, build_sw.TEMPLATE.read_text(encoding="utf-8"))
    for url in info["files"]:
        assert (out / url).is_file(), url
