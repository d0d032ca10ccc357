"""One module per method family's main loop: MDAV, CBFS, density, TFRP, HM, the Ward family, the
refinement phase, OMMA's swaps and sdcMicro's building blocks."""
