"""mjscope tests."""
