"""The Telegram application: settings, wiring, state, i18n and the entry point."""
