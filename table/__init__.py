"""The table's application services: what a Storyteller's table keeps and decides, with no
Telegram in it (ARCHITECTURE.md, "The layers")."""
