"""The skill bus: bindings, their rules, dispatch, the event log and bindings as YAML."""
