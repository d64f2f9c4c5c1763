"""The database schema's Alembic migrations (run by ``nomercy db`` through :mod:`nomercy.server.base.schema`).

Shipped inside the package so that an installed wheel migrates its database without an
``alembic.ini``: :func:`nomercy.server.base.schema.config` points Alembic here.
"""
