"""Render Recall's icon from resources/recall.svg: the PNG sizes, a Windows .ico, a macOS .icns.

Run with ``.venv/bin/python scripts/icons.py`` after changing the SVG, and commit what it writes:
``resources/recall-<size>.png`` (the window icon and the Linux desktop icon) and
``packaging/recall.ico`` and ``packaging/recall.icns`` (the executable's icon on Windows and
the app bundle's on macOS). The .ico and .icns hold PNG images, which both formats allow.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QImageWriter, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "resources" / "recall.svg"
# The sizes the window icon and the freedesktop icon theme use (application.ICON_SIZES).
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# The icns element types that hold a PNG, and the pixel size of each (the @2x ones included).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)


def render(renderer: QSvgRenderer, size: int) -> bytes:
    """The SVG drawn at ``size`` x ``size`` pixels, as PNG data."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    if not writer.write(image.convertToFormat(QImage.Format.Format_ARGB32)):
        raise RuntimeError(f"cannot encode the {size} px icon as PNG: {writer.errorString()}")
    buffer.close()
    return bytes(data.data())


def ico(images: dict[int, bytes]) -> bytes:
    """A Windows icon file holding the PNG ``images`` (size -> data)."""
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    entries = b""
    for size, data in images.items():
        side = 0 if size >= 256 else size  # 0 stands for 256 in the one-byte fields
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return header + entries + b"".join(images.values())


def icns(images: dict[bytes, bytes]) -> bytes:
    """A macOS icon file holding the PNG ``images`` (element type -> data)."""
    body = b"".join(kind + struct.pack(">I", 8 + len(data)) + data for kind, data in images.items())
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> None:
    app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"{SOURCE}: not a valid SVG")
    sizes = sorted({*PNG_SIZES, *ICO_SIZES, *(size for _kind, size in ICNS_TYPES)})
    pngs = {size: render(renderer, size) for size in sizes}
    for size in PNG_SIZES:
        (ROOT / "resources" / f"recall-{size}.png").write_bytes(pngs[size])
    (ROOT / "packaging" / "recall.ico").write_bytes(ico({size: pngs[size] for size in ICO_SIZES}))
    (ROOT / "packaging" / "recall.icns").write_bytes(
        icns({kind: pngs[size] for kind, size in ICNS_TYPES})
    )
    del app


if __name__ == "__main__":
    main()
