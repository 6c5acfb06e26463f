int demo(void) { return 42; }
