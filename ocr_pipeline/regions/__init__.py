"""Page regions found by a layout model shipped in the package: a page image in, header and footer boxes out."""
