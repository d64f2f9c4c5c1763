"""A table's life: the room model, the lobby and action pipeline (:mod:`.manager`), what each
seat is sent, timers and bots, the action log's storage and the leases and cluster that let
several processes share rooms. Imports ``players`` (rated-room checks) and ``base``."""
