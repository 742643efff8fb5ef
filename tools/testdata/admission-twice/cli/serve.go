package main

import rt "sutura.dev/runtime"

// build is a second reference: planted.
var build = rt.NewAdmission
