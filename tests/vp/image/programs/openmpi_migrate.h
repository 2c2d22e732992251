/* Forced into the Open MPI builds of the test programs (-include): MPI_Migrate is Vela's
 * extension, nothing to do under Open MPI. */
#define MPI_Migrate() ((void)0)
