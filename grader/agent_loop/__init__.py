"""The agent loop that ships with the grader (docs/agents.md): `loop.py` runs in the agent's container, standard
library only; `image.py` builds its image; `setup.py` turns a models.toml entry into its command and gateway (the
`loop` driver)."""
