"""The Ochko rules engine: pure, deterministic given its random source, standard library only."""
