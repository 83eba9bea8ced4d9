"""One certified engine for every sampler: lower and upper bounds on delta(eps) and eps(delta).

A sampler's class in the registry (``dpsampling.samplers``) gives the law of one step's likelihood
ratio dP/dQ under Q of its dominating pair (``steps``: Poisson and WOR, (1 - q) + q Y;
``ballsbins``: balls-and-bins' average of Y, with the proofs of every construction; ``substitution``:
WOR under replace-one); ``laws`` carries an upper (convex order) and a lower (Jensen) discrete law
of it, ``compose`` multiplies T of them on grids that coarsen as the spread grows, and ``engine``
composes phases, refines to the requested accuracy and reports the accuracy reached.

The face (``accountants.accountant.Accountant``) is the door: it checks the run, the relation and
the options, then calls the engine's private ``_refined``; nothing public here computes the bounds
of a phase without those checks (``tests/accountants/test_private_engine.py`` holds the public
names to an allow-list). Nothing is imported here.
"""
