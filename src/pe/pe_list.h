/* The registry of positional-encoding schemes: one line per scheme, in the
 * order programs list them (the notes' order: from no position to the
 * paper's formula and the learned table, then the schemes that act inside
 * attention). Each names the PeScheme pe_NAME defined in the scheme's own
 * file; pe.c expands this list into the registry. */
PE_SCHEME(none)
PE_SCHEME(integer)
PE_SCHEME(normalized)
PE_SCHEME(sine)
PE_SCHEME(sincos)
PE_SCHEME(sinusoidal)
PE_SCHEME(learned)
PE_SCHEME(rope)
PE_SCHEME(xpos)
PE_SCHEME(alibi)
PE_SCHEME(xl)
PE_SCHEME(t5)
PE_SCHEME(shaw)
PE_SCHEME(kerple)
PE_SCHEME(fire)
PE_SCHEME(cope)
PE_SCHEME(dpb)
