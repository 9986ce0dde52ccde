"""The ambush contest before a fight (docs/rules.md §B.7): ``/ambush``."""
