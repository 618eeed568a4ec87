"""The Qt plugins and translations Recall's frozen app keeps; the hooks beside this file use it."""

from __future__ import annotations

from pathlib import Path, PurePath

# Recall's catalogs (resources/locale/<language>.po): Qt's own catalog is kept for each.
LOCALE = Path(__file__).resolve().parents[2] / "resources" / "locale"

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


def shipped_languages(locale: Path = LOCALE) -> set[str]:
    """The languages Recall ships a catalog for, besides English."""
    return {path.stem for path in locale.glob("*.po")}


def kept_translations(files: list[str], languages: set[str]) -> list[str]:
    """Of Qt's catalog files, the ``qtbase_<language>.qm`` of each language Recall ships
    (Qt's standard dialogs and buttons; Recall uses no other Qt module with texts)."""
    wanted = {f"qtbase_{language}.qm" for language in languages}
    return sorted(file for file in files if PurePath(file).name in wanted)


def trim(
    binaries: list[tuple[str, str]], datas: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """A Qt hook's collection without the unused plugins and with only the Qt translations
    of the languages Recall ships.

    A hook names Qt's translations by pattern (``.../translations/qtbase_*.qm``) or by
    file; either way only ``qtbase_<language>.qm`` of a shipped language stays.
    """
    kept_binaries = [(source, where) for source, where in binaries if keep_binary(source, where)]
    kept_datas = [(source, where) for source, where in datas if "translations" not in where]
    languages = shipped_languages()
    seen: set[str] = set()
    for source, where in datas:
        if "translations" not in where:
            continue
        found = [
            str(file)
            # A hook's pattern has its wildcard in the last part (``qtbase_*.qm``) or none.
            for match in sorted(Path(source).parent.glob(Path(source).name))
            for file in (sorted(match.iterdir()) if match.is_dir() else [match])
        ]
        for file in kept_translations(found, languages):
            if file not in seen:
                seen.add(file)
                kept_datas.append((file, where))
    return kept_binaries, kept_datas
