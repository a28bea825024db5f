"""The nodes of a turn; agents.pipeline is their map."""
