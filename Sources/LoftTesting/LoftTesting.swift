@_exported import Loft
