"""Work groups: the dynamic partitions every per-group asset is split by."""

from dagster import DynamicPartitionsDefinition

work_groups = DynamicPartitionsDefinition(name="work_groups")
