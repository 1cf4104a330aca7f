#!/bin/sh
# Patroni's bootstrap.post_bootstrap (deploy/ha/patroni.yml): runs once, on the first primary, with
# a superuser connection string as $1. Creates the application's role and database. The role
# carries the session settings the services need, because a transaction-mode pooler passes none
# (deploy/README.md, "High availability"): UTC sessions, the statement and lock time limits of
# DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_LOCK_TIMEOUT_MS. Its password comes from
# DMS_DB_PASSWORD in Patroni's environment.
set -eu
: "${DMS_DB_PASSWORD:?DMS_DB_PASSWORD must be set in Patroni's environment}"
psql "$1" -v ON_ERROR_STOP=1 -v password="$DMS_DB_PASSWORD" <<'SQL'
CREATE ROLE dms LOGIN PASSWORD :'password';
CREATE DATABASE dms OWNER dms;
ALTER ROLE dms SET timezone TO 'UTC';
ALTER ROLE dms SET statement_timeout TO '30s';
ALTER ROLE dms SET lock_timeout TO '5s';
SQL
