"""Numba kernels: arrays and scalars in, preallocated arrays out. They trust their inputs."""
