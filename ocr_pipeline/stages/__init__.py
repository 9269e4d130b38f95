"""Pipeline stages as plain functions over a workspace; the Dagster assets call these."""
