#!/usr/bin/env bash
# Creates Vigil's login role and its database, owned by that role, with nothing more: Vigil's migrations create
# tables, indexes, a plpgsql trigger function and triggers in the database's public schema, which the database's
# owner may do (PostgreSQL 15+: public belongs to pg_database_owner). No superuser, CREATEDB or CREATEROLE.
# docs/operations.md ("PostgreSQL") explains each statement.
#
# Run it where psql reaches the server as a superuser: the postgres image runs it at its first start from
# /docker-entrypoint-initdb.d (deploy/compose.yaml); by hand, with the usual PG* variables:
#   PGHOST=db.internal PGUSER=postgres DATABASE_ROLE_PASSWORD=... bash deploy/postgres/create-vigil-database.sh
set -euo pipefail
: "${DATABASE_ROLE_PASSWORD:?set DATABASE_ROLE_PASSWORD to the password of the vigil role}"
DATABASE_NAME=${DATABASE_NAME:-vigil}
DATABASE_ROLE=${DATABASE_ROLE:-vigil}

# psql variables (:'name' quotes a literal, :"name" an identifier), so no value is spliced into SQL by the shell.
sql=$(cat <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
CREATE DATABASE :"database" OWNER :"role" ENCODING 'UTF8' TEMPLATE template0;
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
\connect :"database"
REVOKE ALL ON SCHEMA public FROM PUBLIC;
SQL
)

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-${PGUSER:-postgres}}" --dbname postgres \
  -v role="$DATABASE_ROLE" -v password="$DATABASE_ROLE_PASSWORD" -v database="$DATABASE_NAME" <<<"$sql"
