#!/usr/bin/env bash
# Prepare $DAGSTER_HOME with the shipped instance file: Postgres storage when DAGSTER_PG_HOST is set
# (deploy/dagster-postgres.yaml, which reads DAGSTER_PG_HOST, _PORT, _USER, _PASSWORD, _DB), else SQLite
# (deploy/dagster.yaml). Run it once before `dagster dev`, `dagster-daemon run` or `dagster-webserver`.
set -euo pipefail
: "${DAGSTER_HOME:?set DAGSTER_HOME to a folder (the instance lives there)}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$DAGSTER_HOME"
if [ -n "${DAGSTER_PG_HOST:-}" ]; then
  for var in DAGSTER_PG_PORT DAGSTER_PG_USER DAGSTER_PG_PASSWORD DAGSTER_PG_DB; do
    [ -n "${!var+set}" ] || { echo "$var is not set (the instance reads it at every start)" >&2; exit 2; }
  done
  cp "$here/dagster-postgres.yaml" "$DAGSTER_HOME/dagster.yaml"
  echo "$DAGSTER_HOME/dagster.yaml: Postgres at $DAGSTER_PG_HOST:$DAGSTER_PG_PORT/$DAGSTER_PG_DB"
else
  cp "$here/dagster.yaml" "$DAGSTER_HOME/dagster.yaml"
  echo "$DAGSTER_HOME/dagster.yaml: SQLite under $DAGSTER_HOME"
fi
