"""The players who come back: their names, the roster in the record, and what
the record says about them (issue 34). Pure helpers here; the record's side is
in :mod:`shutbox_hw.store`."""
