"""dp-accounting as the reference: its PLDs (``pld``, bounds refined by ``pld_bounds``) and its RDP
accountants (``rdp``). Used by the tests and the benchmark as an independent cross-check, by
the face's reference methods ``Accountant(method="dp_accounting" | "rdp")`` (``--method``;
the private ``pld._phase_bounds`` and ``rdp._phase_bounds`` answer the long frame's bounds: the face
is the door, it checks the run first), and, for WOR under substitution, as a second valid upper
bound beside the certified one. Nothing outside this package imports dp-accounting for accounting.
dp-accounting is imported at first use (``dpsampling.lazy``): no default path pays for it."""
