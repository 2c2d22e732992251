#include "netcdf_output.hpp"

#include <stdio.h>

#ifdef BRAMS_NETCDF
#include <netcdf.h>
#endif

bool brams_netcdf_available() {
#ifdef BRAMS_NETCDF
  return true;
#else
  return false;
#endif
}

#ifndef BRAMS_NETCDF

bool brams_write_netcdf(const char* path, const BramsOutput&, char* error, size_t error_size) {
  snprintf(error, error_size,
           "--output '%s': this build has no netCDF (install libnetcdf-dev and rebuild)", path);
  return false;
}

#else

namespace {

struct Writer {
  const char* path;
  char* error;
  size_t error_size;
  int ncid = -1;
  bool ok = true;

  // Records the first failure, naming the file and the step that failed.
  bool check(int status, const char* what) {
    if (status == NC_NOERR || !ok) return ok;
    snprintf(error, error_size, "--output '%s': %s: %s", path, what, nc_strerror(status));
    ok = false;
    return false;
  }
  void text(int var, const char* name, const char* value) {
    check(nc_put_att_text(ncid, var, name, strlen_of(value), value), name);
  }
  static size_t strlen_of(const char* s) {
    size_t n = 0;
    while (s[n] != '\0') ++n;
    return n;
  }
};

struct Variable {
  const char* name;
  const char* standard_name;  // CF standard name, or nullptr
  const char* long_name;
  const char* units;
  const double* data;
  int id;
};

}  // namespace

bool brams_write_netcdf(const char* path, const BramsOutput& out, char* error, size_t error_size) {
  // Written next to the target and renamed over it when complete: a failure leaves any file
  // that was there as it was, and no partial one.
  char part[1100];
  if (snprintf(part, sizeof part, "%s.part", path) >= (int)sizeof part) {
    snprintf(error, error_size, "--output '%s': the path is too long", path);
    return false;
  }
  Writer w{path, error, error_size};
  if (!w.check(nc_create(part, NC_CLOBBER | NC_NETCDF4, &w.ncid), "cannot create it")) return false;
  int dz = 0, dy = 0, dx = 0;
  w.check(nc_def_dim(w.ncid, "z", (size_t)out.nz, &dz), "z dimension");
  w.check(nc_def_dim(w.ncid, "y", (size_t)out.ny, &dy), "y dimension");
  w.check(nc_def_dim(w.ncid, "x", (size_t)out.nx, &dx), "x dimension");
  // Coordinates: grid indices (the proxy is non-dimensional: one grid length, one level).
  struct Axis {
    const char* name;
    int dim;
    const char* standard_name;  // or nullptr
    const char* long_name;
    const char* axis;
    int id;
  } axes[] = {{"x", dx, "projection_x_coordinate", "x grid index (west to east)", "X", 0},
              {"y", dy, "projection_y_coordinate", "y grid index (south to north)", "Y", 0},
              {"z", dz, nullptr, "model level index (bottom up)", "Z", 0}};
  for (Axis& a : axes) {
    w.check(nc_def_var(w.ncid, a.name, NC_DOUBLE, 1, &a.dim, &a.id), a.name);
    if (a.standard_name != nullptr) w.text(a.id, "standard_name", a.standard_name);
    w.text(a.id, "long_name", a.long_name);
    w.text(a.id, "units", "1");
    w.text(a.id, "axis", a.axis);
  }
  w.text(axes[2].id, "positive", "up");
  Variable fields[] = {
      {"th", nullptr, "potential temperature perturbation", "K", out.th, 0},
      {"qv", "humidity_mixing_ratio", "water vapour mixing ratio", "kg kg-1", out.qv, 0},
      {"qc", "cloud_liquid_water_mixing_ratio", "cloud water mixing ratio", "kg kg-1", out.qc, 0},
      {"u", "eastward_wind", "eastward wind", "m s-1", out.u, 0},
      {"v", "northward_wind", "northward wind", "m s-1", out.v, 0},
  };
  const int dims3[3] = {dz, dy, dx};
  for (Variable& f : fields) {
    w.check(nc_def_var(w.ncid, f.name, NC_DOUBLE, 3, dims3, &f.id), f.name);
    if (f.standard_name != nullptr) w.text(f.id, "standard_name", f.standard_name);
    w.text(f.id, "long_name", f.long_name);
    w.text(f.id, "units", f.units);
  }
  Variable rain = {
      "rain", "lwe_thickness_of_precipitation_amount", "accumulated surface rain", "m", out.rain,
      0};
  const int dims2[2] = {dy, dx};
  w.check(nc_def_var(w.ncid, rain.name, NC_DOUBLE, 2, dims2, &rain.id), rain.name);
  w.text(rain.id, "standard_name", rain.standard_name);
  w.text(rain.id, "long_name", rain.long_name);
  w.text(rain.id, "units", rain.units);
  w.text(NC_GLOBAL, "Conventions", "CF-1.8");
  w.text(NC_GLOBAL, "title", "Vela BRAMS proxy: final fields");
  w.text(NC_GLOBAL, "source",
         "apps/brams (a non-dimensional weather proxy: units are nominal, one grid length and "
         "one model level per index)");
  char history[160];
  snprintf(history, sizeof history, "%d steps on %d ranks, %d x %d columns x %d levels", out.steps,
           out.ranks, out.nx, out.ny, out.nz);
  w.text(NC_GLOBAL, "history", history);
  w.check(nc_enddef(w.ncid), "leaving define mode");
  if (w.ok) {
    double* index = new double[(size_t)(out.nx > out.ny ? (out.nx > out.nz ? out.nx : out.nz)
                                                        : (out.ny > out.nz ? out.ny : out.nz))];
    for (int i = 0; i < out.nx || i < out.ny || i < out.nz; ++i) index[i] = i;
    for (const Axis& a : axes) w.check(nc_put_var_double(w.ncid, a.id, index), a.name);
    delete[] index;
    for (const Variable& f : fields) w.check(nc_put_var_double(w.ncid, f.id, f.data), f.name);
    w.check(nc_put_var_double(w.ncid, rain.id, rain.data), rain.name);
  }
  const int closed = nc_close(w.ncid);
  w.check(closed, "closing it");
  if (w.ok && rename(part, path) != 0) {
    snprintf(error, error_size, "--output '%s': cannot rename %s onto it", path, part);
    w.ok = false;
  }
  if (!w.ok) remove(part);
  return w.ok;
}

#endif
