"""The Qt plugins and translations Recall's frozen app keeps; the hooks beside this file use it."""

from __future__ import annotations

from pathlib import PurePath

# Plugin folder -> the plugins kept from it. A folder not named here is left out whole.
KEPT_PLUGINS = {
    # xcb draws on X11 (and under XWayland); offscreen runs the self-test without a display.
    # qwindows and qcocoa are the Windows and macOS equivalents of xcb.
    "platforms": {"qxcb", "qoffscreen", "qwindows", "qcocoa"},
    # File dialogs and the light/dark setting through the desktop portal (Flatpak, GNOME).
    "platformthemes": {"qxdgdesktopportal"},
    # Dead keys and compose sequences when typing a file name in the import dialog.
    "platforminputcontexts": {"composeplatforminputcontextplugin"},
    # Images on imported cards: PNG and BMP are built into QtGui, these read the rest
    # (qsvg: SVG images, which QtSvg draws).
    "imageformats": {"qjpeg", "qgif", "qwebp", "qsvg"},
}


def plugin_name(file: str) -> str:
    """``/x/libqxcb.so`` -> ``qxcb``; ``qwindows.dll`` -> ``qwindows``."""
    name = PurePath(file).name.split(".")[0]
    return name.removeprefix("lib") if not file.endswith(".dll") else name


def keep_binary(source: str, destination: str) -> bool:
    """Whether a binary a Qt hook collects goes into the app: every library, few plugins."""
    parts = PurePath(destination).parts
    if "plugins" not in parts:
        return True
    folder = "/".join(parts[parts.index("plugins") + 1 :])
    return plugin_name(source) in KEPT_PLUGINS.get(folder, set())


def trim(
    binaries: list[tuple[str, str]], datas: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """A Qt hook's collection without the unused plugins and without Qt's translations.

    Recall's text is English and it installs no QTranslator, so Qt's own translations
    (standard dialog buttons) would never be loaded.
    """
    kept_binaries = [(source, where) for source, where in binaries if keep_binary(source, where)]
    kept_datas = [(source, where) for source, where in datas if "translations" not in where]
    return kept_binaries, kept_datas
