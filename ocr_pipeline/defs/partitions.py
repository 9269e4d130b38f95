"""Work groups: the dynamic partitions every per-group asset is split by (DESIGN §2)."""

from dagster import DynamicPartitionsDefinition

work_groups = DynamicPartitionsDefinition(name="work_groups")
