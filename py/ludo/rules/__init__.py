"""Rule sets.  Each module implements the :class:`ludo.rules.base.RuleSet` interface."""
