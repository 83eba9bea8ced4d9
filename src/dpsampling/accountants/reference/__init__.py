"""dp-accounting as the reference: its PLDs (``pld``, bounds refined by ``pld_bounds``) and its RDP
accountants (``rdp``). Used by the tests and the benchmark as an independent cross-check, by
``Accountant(method="dp_accounting")`` (``--pld-method dp_accounting``), and, for WOR under
substitution, as a second valid upper bound beside the certified one. dp-accounting is imported
at first use (``dpsampling.lazy``): no default path pays for it."""
