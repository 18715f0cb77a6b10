"""The scheduler framework: status values, cycle state, plugin base classes and the runtime."""
