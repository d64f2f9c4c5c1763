"""The database schema's Alembic migrations (run by ``nomercy db`` through :mod:`nomercy.server.schema`).

Shipped inside the package so that an installed wheel migrates its database without an
``alembic.ini``: :func:`nomercy.server.schema.config` points Alembic here.
"""
