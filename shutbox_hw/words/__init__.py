"""The words every surface says: a rule set's title, a device's name, what the record holds."""
