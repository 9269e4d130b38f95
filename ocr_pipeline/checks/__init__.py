"""Declarative data tests (dbt_like_checks/*.yml): parsing, data loading and evaluation, free of Dagster."""
