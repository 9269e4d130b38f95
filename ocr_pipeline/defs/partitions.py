"""Work groups: the dynamic partitions every per-group asset is split by."""

from dagster import DynamicPartitionsDefinition

# The name as a plain str: the instance's partition calls want one, and the definition types its name Optional.
WORK_GROUPS = "work_groups"
work_groups = DynamicPartitionsDefinition(name=WORK_GROUPS)
