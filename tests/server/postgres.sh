#!/usr/bin/env bash
# Start a throwaway PostgreSQL (Debian's packages) on 127.0.0.1 and a free port, for the
# storage and server tests. Prints one line to eval:
#   export NOMERCY_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:PORT/nomercy_test
# The cluster lives in a temporary folder and stops when the machine does (or with
# pg_ctl -D "$NOMERCY_TEST_PGDATA" stop).
set -euo pipefail
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "postgres.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
data=$(mktemp -d /tmp/nomercy-pg.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$data"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_postgres "$bindir/initdb" -D "$data/db" -A trust -U postgres >"$data/initdb.log" 2>&1
as_postgres "$bindir/pg_ctl" -D "$data/db" -l "$data/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=on" start >&2
as_postgres "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres nomercy_test
echo "export NOMERCY_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:$port/nomercy_test NOMERCY_TEST_PGDATA=$data/db"
