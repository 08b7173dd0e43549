"""topicbench: a reproducible benchmark harness for stochastic and online variational topic models."""
__version__ = "0.1.0"
