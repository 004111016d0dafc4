"User-voice request templates, one module per server: `PHRASES = {tool: (template, ...)}`, read by `prove_nb.synth.realize.phrasings`."
