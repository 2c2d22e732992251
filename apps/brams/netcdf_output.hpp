/* The BRAMS proxy's final fields as a netCDF file with CF conventions (--output FILE.nc), for
 * a meteorologist's usual tools (xarray, ncview, Panoply). */
#ifndef BRAMS_NETCDF_OUTPUT_HPP
#define BRAMS_NETCDF_OUTPUT_HPP

#include <stddef.h>

/* What the file holds: the grid, the five prognostic fields (each nz x ny x nx, x fastest),
 * the surface rain (ny x nx), and the run's description. */
struct BramsOutput {
  int nx, ny, nz, steps, ranks;
  const double* th;
  const double* qv;
  const double* qc;
  const double* u;
  const double* v;
  const double* rain;
};

/* Whether this build can write netCDF (libnetcdf was found). */
bool brams_netcdf_available();

/* Writes `out` to `path` (replacing it); false with a message naming the file in `error`. */
bool brams_write_netcdf(const char* path, const BramsOutput& out, char* error, size_t error_size);

#endif
