"""Drop-in accountants for the libraries that compute eps during training (docs/INTEGRATIONS.md).

- ``integrations.dp_accounting``: ``CertifiedAccountant``, a ``dp_accounting.PrivacyAccountant``
  (the accountant jax-privacy, TensorFlow Privacy and many research codebases hand their
  ``DpEvent``s to), answering through the one accountant face (``dpsampling.Accountant``);
- ``integrations.events``: the events dp_accounting 0.6 lacks (random allocation = balls-and-bins,
  balls-in-bins with kept bins, shuffled batches);
- ``integrations.jax_privacy``: a jax-privacy ``DpAccountantConfig`` that creates ours;
- ``integrations.opacus``: an accountant with Opacus' protocol, registered by name, and an
  Opacus-style ``get_noise_multiplier`` for every sampler.

Nothing here is imported by ``import dpsampling``; torch and jax are imported only by the modules
that need them, and only when they are installed.
"""
