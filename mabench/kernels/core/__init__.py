"""Core primitives over the work buffer of remaining records: the buffer itself, distance passes, the
k nearest, group quantities, the value a group publishes, and the progress counter."""
