"""The bundled scenario specs, installed with the package so `mafiacheck serve` has them."""
