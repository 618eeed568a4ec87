"""The local API part of Preferences: on or off, its port, its key (copy, new) and origins."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from recall.core import fields
from recall.core.i18n import tr, trp
from recall.core.preferences import Preferences
from recall.ui.plain_text import plain_label, plain_tooltip


class ApiSection(QGroupBox):
    """The local API's settings, edited in Preferences and stored when they are saved.

    Args:
        preferences: The stored preferences, shown.
        parent: The preferences dialog.
    """

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(tr("Local API"), parent)
        infos = {item.key: item for item in fields.describe(Preferences)}
        self.enabled = QCheckBox(tr("Let programs on this computer add and find cards"))
        self.port = QSpinBox()
        self.port.setRange(int(infos["api_port"].low or 1024), int(infos["api_port"].high or 65535))
        self.key = QLineEdit()
        self.key.setReadOnly(True)
        self.key.setPlaceholderText(tr("made when the API is turned on"))
        self.copy_button = QPushButton(tr("Copy"))
        self.new_key_button = QPushButton(tr("New Key"))
        self.origins = QLineEdit()
        self.origins.setPlaceholderText(tr("none: only programs, no web pages"))
        for widget, key in (
            (self.enabled, "api_enabled"),
            (self.port, "api_port"),
            (self.key, "api_key"),
            (self.origins, "api_origins"),
        ):
            widget.setToolTip(plain_tooltip(infos[key].help))
            widget.setAccessibleName(infos[key].label)
            widget.setObjectName(f"option_{key}")
        self.copy_button.setAccessibleName(tr("Copy the local API key"))
        self.new_key_button.setAccessibleName(tr("Make a new local API key"))
        self.new_key_button.setToolTip(
            plain_tooltip(tr("Programs given the old key must be given the new one."))
        )
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.copy_button)
        key_row.addWidget(self.new_key_button)
        layout = QFormLayout(self)
        layout.addRow(self.enabled)
        layout.addRow(tr("Port"), self.port)
        layout.addRow(trp("local API", "Key"), key_row)
        layout.addRow(tr("Web origins"), self.origins)
        note = plain_label(
            tr("Listens on 127.0.0.1 only; AnkiConnect's actions work. See docs/api.md.")
        )
        note.setObjectName("hint")
        layout.addRow(note)
        self.enabled.setChecked(preferences.api_enabled)
        self.port.setValue(preferences.api_port)
        self.key.setText(preferences.api_key)
        self.key.setCursorPosition(0)
        self.origins.setText(preferences.api_origins)
        self._connect_signals()
        self._on_enabled()

    def _connect_signals(self) -> None:
        self.enabled.toggled.connect(self._on_enabled)
        self.copy_button.clicked.connect(self._on_copy)
        self.new_key_button.clicked.connect(self._on_new_key)

    def values(self) -> dict[str, Any]:
        """The settings as edited, by preference key (checked when the preferences are)."""
        return {
            "enabled": self.enabled.isChecked(),
            "port": self.port.value(),
            "key": self.key.text(),
            "origins": self.origins.text(),
        }

    def _on_enabled(self) -> None:
        on = self.enabled.isChecked()
        if on and not self.key.text():
            self._on_new_key()  # made on first enable, so it can be copied before saving
        for widget in (self.port, self.copy_button, self.new_key_button, self.origins):
            widget.setEnabled(on)

    def _on_copy(self) -> None:
        QGuiApplication.clipboard().setText(self.key.text())

    def _on_new_key(self) -> None:
        from recall.api.protocol import new_key  # the API loads only when it is used

        self.key.setText(new_key())
        self.key.setCursorPosition(0)  # its start shown, as a key is read
