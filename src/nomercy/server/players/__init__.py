"""People across tables: accounts and sign-in, profiles, ratings and standings, the daily deal,
fair play. Imports only ``base``: the tables of rooms and kept games it reads are declared
there (:mod:`nomercy.server.base.tables`)."""
