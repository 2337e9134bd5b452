"""Render the app's PNG icons from the one SVG source, icons/icon.svg (needs cairosvg).

    python tools/build_icons.py            # (re)write icons/*.png where they changed
    python tools/build_icons.py --check    # exit 1 if a PNG is missing or out of date

The PNGs are build output (git ignores them): `make serve`, `make test` and `make dist` run this
first. What each one is for:

- icon-192.png, icon-512.png: the manifest's "any" icons, the source as drawn (transparent
  rounded corners).
- maskable-192.png, maskable-512.png: the manifest's "maskable" icons. Launchers crop these to
  a circle, squircle or rounded square of their own, keeping only the central "safe zone"
  (a circle of 40% of the size around the centre), so the drawing is shrunk to fit inside it
  and the whole square is filled with the icon's background colour.
- apple-touch-icon.png (180 px): iOS "Add to Home Screen". iOS rounds the corners itself and
  shows transparency as black, so it is full-bleed too, with less shrinking.

The background colour of the full-bleed icons is the fill of the source's first shape (its
background plate), so changing the SVG changes every icon consistently.
"""

from __future__ import annotations

import argparse
import io
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG_NS = "http://www.w3.org/2000/svg"
SOURCE = "icon.svg"


@dataclass(frozen=True)
class Icon:
    name: str
    size: int
    scale: float | None  # None: the source as drawn; else full-bleed, drawing scaled by this


# Maskable scale: the source's board reaches about 255/256 of the half-size (its rounded corner
# at the diagonal), and the safe zone's radius is 0.4 of the size, so 0.78 keeps all of it in.
ICONS = (
    Icon("icon-192.png", 192, None),
    Icon("icon-512.png", 512, None),
    Icon("maskable-192.png", 192, 0.78),
    Icon("maskable-512.png", 512, 0.78),
    Icon("apple-touch-icon.png", 180, 0.88),
)


def _viewbox(svg: ET.Element) -> tuple[float, float, float, float]:
    box = svg.get("viewBox")
    if not box:
        raise SystemExit(f"build_icons: {SOURCE} needs a viewBox")
    x, y, w, h = (float(v) for v in box.replace(",", " ").split())
    return x, y, w, h


def background_of(svg: ET.Element) -> str:
    """The fill of the source's first shape: the colour of its background plate."""
    for child in svg:
        if child.tag.rsplit("}", 1)[-1] in ("rect", "circle", "path", "polygon") and child.get(
            "fill"
        ):
            return child.get("fill", "")
    raise SystemExit(f"build_icons: {SOURCE} has no filled background shape")


def full_bleed(source: str, scale: float) -> str:
    """The source drawing shrunk by `scale` about its centre, on a square of its background."""
    ET.register_namespace("", SVG_NS)
    src = ET.fromstring(source)
    x, y, w, h = _viewbox(src)
    root = ET.Element(
        f"{{{SVG_NS}}}svg", {"viewBox": f"{x:g} {y:g} {w:g} {h:g}", "width": f"{w:g}",
                             "height": f"{h:g}"}
    )
    ET.SubElement(
        root,
        f"{{{SVG_NS}}}rect",
        {"x": f"{x:g}", "y": f"{y:g}", "width": f"{w:g}", "height": f"{h:g}",
         "fill": background_of(src)},
    )
    cx, cy = x + w / 2, y + h / 2
    group = ET.SubElement(
        root,
        f"{{{SVG_NS}}}g",
        {"transform": f"translate({cx:g} {cy:g}) scale({scale:g}) translate({-cx:g} {-cy:g})"},
    )
    group.extend(child for child in src if not child.tag.endswith("}title"))
    return ET.tostring(root, encoding="unicode")


def _cairosvg():  # -> the cairosvg module
    """cairosvg, or a one-line exit naming what is missing (it loads the system's libcairo2)."""
    try:
        import cairosvg  # only this script needs it; imported late so --help works without it
    except ImportError:
        raise SystemExit(
            "build_icons: cairosvg is not installed: run `make` (it installs requirements.txt"
            " into .venv) or `.venv/bin/python -m pip install -r requirements.txt`"
        ) from None
    except OSError as error:  # cairocffi found no libcairo
        reason = str(error).splitlines()[0][:200]
        raise SystemExit(
            "build_icons: cairosvg cannot load the cairo library; on Debian or Ubuntu install it"
            f" with `apt-get install libcairo2` ({reason})"
        ) from None
    return cairosvg


def render(source: str, icon: Icon) -> bytes:
    cairosvg = _cairosvg()

    svg = source if icon.scale is None else full_bleed(source, icon.scale)
    out = io.BytesIO()
    cairosvg.svg2png(
        bytestring=svg.encode("utf-8"),
        write_to=out,
        output_width=icon.size,
        output_height=icon.size,
    )
    return out.getvalue()


def build(icons_dir: Path, check: bool = False) -> list[Path]:
    """Render every icon; write those that changed (or, with check, just list them)."""
    source = (icons_dir / SOURCE).read_text(encoding="utf-8")
    changed = []
    for icon in ICONS:
        target = icons_dir / icon.name
        data = render(source, icon)
        if target.is_file() and target.read_bytes() == data:
            continue
        changed.append(target)
        if not check:
            # Written whole and renamed, so a server never sends half a PNG.
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render icons/*.png from icons/icon.svg.")
    parser.add_argument("--icons-dir", type=Path, default=ROOT / "icons")
    parser.add_argument("--check", action="store_true", help="only report out-of-date PNGs")
    args = parser.parse_args(argv)
    changed = build(args.icons_dir, check=args.check)
    if args.check:
        for path in changed:
            print(f"{path} is missing or out of date: run python tools/build_icons.py")
        return 1 if changed else 0
    if changed:
        print(f"icons: wrote {', '.join(p.name for p in changed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
