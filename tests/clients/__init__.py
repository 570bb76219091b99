"""Real AI clients and npm tools against real servers."""
