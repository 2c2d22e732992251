! Fortran MPI calls of each chapter, their values printed: the output must equal Open MPI's for
! the same source (the ranks' lines are sorted before comparing). Run on 4 ranks.
program calls
  use mpi
  implicit none
  integer :: ierr, rank, nranks

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call point_to_point(rank, nranks)
  call collectives(rank, nranks)
  call communicators(rank, nranks)
  call datatypes(rank, nranks)
  call topologies(rank, nranks)
  call one_sided(rank, nranks)
  call more_nonblocking(rank, nranks)
  call attributes(rank)
  call generalized(rank)
  call environment(rank)
  call MPI_FINALIZE(ierr)
end program calls

subroutine point_to_point(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, requests(2), statuses(MPI_STATUS_SIZE, 2), status(MPI_STATUS_SIZE)
  integer :: left, right, count, index, received(3), sent(3)
  logical :: flag
  double precision :: value
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  sent = (/ rank, rank * 10, rank * 100 /)
  call MPI_IRECV(received, 3, MPI_INTEGER, left, 7, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_ISEND(sent, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_WAITALL(2, requests, statuses, ierr)
  print '(a,i0,a,3(1x,i0),a,i0,a,l1)', 'p2p ', rank, ': ring', received, ' from ', &
    statuses(MPI_SOURCE, 1), ' null ', requests(1) == MPI_REQUEST_NULL
  call MPI_GET_COUNT(statuses(:, 1), MPI_INTEGER, count, ierr)
  value = dble(rank) + 0.5d0
  call MPI_SENDRECV_REPLACE(value, 1, MPI_DOUBLE_PRECISION, right, 8, left, 8, &
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  ! A probe, then a receive of the size it gave.
  if (rank == 0) then
    call MPI_SEND(sent, 2, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_PROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
    call MPI_RECV(received, count, MPI_INTEGER, status(MPI_SOURCE), status(MPI_TAG), &
                  MPI_COMM_WORLD, status, ierr)
    print '(a,i0,a,i0,a,i0)', 'p2p ', rank, ': probed ', count, ' tag ', status(MPI_TAG)
  end if
  ! Waitany over one real and one null request: index from 1.
  requests(1) = MPI_REQUEST_NULL
  call MPI_IRECV(received, 1, MPI_INTEGER, left, 10, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_SEND(rank, 1, MPI_INTEGER, right, 10, MPI_COMM_WORLD, ierr)
  call MPI_WAITANY(2, requests, index, status, ierr)
  call MPI_TEST(requests(2), flag, status, ierr)
  print '(a,i0,a,f0.1,a,i0,a,i0,a,l1)', 'p2p ', rank, ': replaced ', value, ' count ', count, &
    ' any ', index, ' test ', flag
end subroutine point_to_point

! An associative operator that does not commute: (digits, count) pairs of MPI_2INTEGER
! concatenated, left operand first, so the result shows the order the ranks were combined in.
subroutine combine(invec, inoutvec, length, datatype)
  implicit none
  integer, intent(in) :: length, datatype
  integer, intent(in) :: invec(2, length)
  integer, intent(inout) :: inoutvec(2, length)
  integer :: i
  do i = 1, length
    if (datatype /= 0) then
      inoutvec(1, i) = invec(1, i) * 10**inoutvec(2, i) + inoutvec(1, i)
      inoutvec(2, i) = invec(2, i) + inoutvec(2, i)
    end if
  end do
end subroutine combine

subroutine collectives(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, i, n, op, counts(4), displs(4), gathered(10), mine(4), all(4), prefix
  integer :: scattered(4), table(4), digit(2), combined(2)
  double precision :: pair(2), best(2), sum_in_place(2)
  logical :: truth, every
  external combine
  n = 42
  if (rank /= 0) n = 0
  call MPI_BCAST(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ! MINLOC on (value, index) pairs of double precision.
  pair = (/ dble(mod(rank * 7 + 3, 5)), dble(rank) /)
  call MPI_ALLREDUCE(pair, best, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  truth = rank >= 0
  call MPI_ALLREDUCE(truth, every, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  sum_in_place = (/ dble(rank), 1d0 /)
  call MPI_ALLREDUCE(MPI_IN_PLACE, sum_in_place, 2, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  ! Gatherv: rank r sends r+1 numbers.
  do i = 1, 4
    mine(i) = rank * 10 + i
    counts(i) = i
    displs(i) = (i - 1) * i / 2
  end do
  gathered = -1
  call MPI_GATHERV(mine, rank + 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,10(1x,i0))', 'gatherv', gathered
  call MPI_SCAN(rank + 1, prefix, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 4
    table(i) = rank * 100 + i
  end do
  call MPI_ALLTOALL(table, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_SCATTER(table, 1, MPI_INTEGER, scattered, 1, MPI_INTEGER, 2, MPI_COMM_WORLD, ierr)
  call MPI_OP_CREATE(combine, .false., op, ierr)
  digit = (/ rank + 1, 1 /)
  call MPI_REDUCE(digit, combined, 1, MPI_2INTEGER, op, 0, MPI_COMM_WORLD, ierr)
  call MPI_OP_FREE(op, ierr)
  if (rank == 0) print '(a,i0,a,l1)', 'user op ', combined(1), ' freed ', op == MPI_OP_NULL
  print '(a,i0,a,i0,a,2(1x,f0.1),a,l1,a,2(1x,f0.1),a,i0,a,4(1x,i0),a,i0)', 'coll ', rank, &
    ': bcast ', n, ' minloc', best, ' land ', every, ' in place', sum_in_place, ' scan ', &
    prefix, ' alltoall', all, ' scatter ', scattered(1)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (nranks /= 4) print *, 'calls: run on 4 ranks'
end subroutine collectives

subroutine communicators(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, half, dup, result, subrank, subsize, world_group, group, grank
  integer :: ranks(2), translated(2), sum
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call MPI_COMM_RANK(half, subrank, ierr)
  call MPI_COMM_SIZE(half, subsize, ierr)
  call MPI_ALLREDUCE(rank, sum, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call MPI_COMM_DUP(half, dup, ierr)
  call MPI_COMM_COMPARE(half, dup, result, ierr)
  call MPI_COMM_GROUP(MPI_COMM_WORLD, world_group, ierr)
  ranks = (/ 3, 1 /)
  call MPI_GROUP_INCL(world_group, 2, ranks, group, ierr)
  call MPI_GROUP_RANK(group, grank, ierr)
  ranks = (/ 0, 1 /)
  call MPI_GROUP_TRANSLATE_RANKS(group, 2, ranks, world_group, translated, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  print '(a,i0,a,i0,a,i0,a,i0,a,l1,a,i0,a,2(1x,i0),a,l1)', 'comm ', rank, ': split ', subrank, &
    ' of ', subsize, ' sum ', sum, ' congruent ', result == MPI_CONGRUENT, ' group rank ', &
    grank, ' translated', translated, ' tag_ub ', flag .and. tag_ub >= 32767
  call MPI_GROUP_FREE(group, ierr)
  call MPI_GROUP_FREE(world_group, ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_FREE(half, ierr)
  if (half /= MPI_COMM_NULL .or. nranks /= 4) print *, 'comm_free left a handle'
end subroutine communicators

subroutine datatypes(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, row, size, position, i, j, buffer_size, left, right
  integer :: matrix(3, 4), got(4), ints(2), unpacked(2)
  double precision :: d, unpacked_d
  character(len=64) :: packed
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  ! A row of a column-major 3x4 matrix: 4 integers 3 apart.
  do j = 1, 4
    do i = 1, 3
      matrix(i, j) = rank * 100 + i * 10 + j
    end do
  end do
  call MPI_TYPE_VECTOR(4, 1, 3, MPI_INTEGER, row, ierr)
  call MPI_TYPE_COMMIT(row, ierr)
  call MPI_TYPE_SIZE(row, size, ierr)
  call MPI_TYPE_GET_EXTENT(row, lb, extent, ierr)
  call MPI_SENDRECV(matrix(2, 1), 1, row, right, 11, got, 4, MPI_INTEGER, left, 11, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_TYPE_FREE(row, ierr)
  ! Pack two integers and a double, send the bytes, unpack them.
  ints = (/ rank, -rank /)
  d = rank * 0.25d0
  position = 0
  call MPI_PACK_SIZE(2, MPI_INTEGER, MPI_COMM_WORLD, buffer_size, ierr)
  call MPI_PACK(ints, 2, MPI_INTEGER, packed, 64, position, MPI_COMM_WORLD, ierr)
  call MPI_PACK(d, 1, MPI_DOUBLE_PRECISION, packed, 64, position, MPI_COMM_WORLD, ierr)
  call MPI_SENDRECV_REPLACE(packed, 64, MPI_PACKED, right, 12, left, 12, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE, ierr)
  position = 0
  call MPI_UNPACK(packed, 64, position, unpacked, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_UNPACK(packed, 64, position, unpacked_d, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, &
                  ierr)
  print '(a,i0,a,4(1x,i0),a,i0,a,i0,1x,i0,a,2(1x,i0),a,f0.2,a,l1)', 'type ', rank, ': row', &
    got, ' size ', size, ' extent ', lb, extent, ' unpacked', unpacked, ' ', unpacked_d, &
    ' pack size ', buffer_size >= 8
end subroutine datatypes

subroutine topologies(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, dims(2), cart, coords(2), source, dest, crank
  logical :: periods(2)
  dims = 0
  call MPI_DIMS_CREATE(nranks, 2, dims, ierr)
  periods = (/ .true., .false. /)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_CART_COORDS(cart, rank, 2, coords, ierr)
  call MPI_CART_SHIFT(cart, 0, 1, source, dest, ierr)
  call MPI_CART_RANK(cart, coords, crank, ierr)
  print '(a,i0,a,2(1x,i0),a,2(1x,i0),a,i0,1x,i0,a,i0)', 'cart ', rank, ': dims', dims, &
    ' coords', coords, ' shift ', source, dest, ' rank ', crank
  call MPI_COMM_FREE(cart, ierr)
end subroutine topologies

subroutine environment(rank)
  use mpi
  implicit none
  integer, intent(in) :: rank
  integer :: ierr, version, subversion, length, error_class
  logical :: initialized
  double precision :: start
  character(len=MPI_MAX_ERROR_STRING) :: text
  start = MPI_WTIME()
  call MPI_INITIALIZED(initialized, ierr)
  call MPI_GET_VERSION(version, subversion, ierr)
  call MPI_ERROR_STRING(MPI_ERR_TAG, text, length, ierr)
  call MPI_ERROR_CLASS(MPI_ERR_COUNT, error_class, ierr)
  if (rank == 0) print '(a,l1,a,i0,a,l1,a,l1,a,l1)', 'env: initialized ', initialized, &
    ' version ', version, ' time ', MPI_WTIME() >= start, ' string ', length > 0 .and. &
    len_trim(text) == length, ' class ', error_class == MPI_ERR_COUNT
end subroutine environment

subroutine one_sided(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, win, right, value, one, old, got(2)
  integer :: window(4)
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp, size
  logical :: flag
  right = mod(rank + 1, nranks)
  window = (/ -1, -2, -3, -4 /)
  bytes = 16
  call MPI_WIN_CREATE(window, bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  value = rank * 10
  disp = 1
  call MPI_PUT(value, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  ! Every rank adds rank + 1 into element 1 of rank 0, under a shared lock.
  one = rank + 1
  call MPI_WIN_LOCK(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_ACCUMULATE(one, 1, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, &
                      ierr)
  call MPI_WIN_UNLOCK(0, win, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_GET(got, 2, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_WIN_LOCK(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  call MPI_FETCH_AND_OP(one, old, MPI_INTEGER, right, 3_MPI_ADDRESS_KIND, MPI_SUM, win, ierr)
  call MPI_WIN_UNLOCK(right, win, ierr)
  call MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, size, flag, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  print '(a,i0,a,4(1x,i0),a,2(1x,i0),a,i0,a,i0)', 'rma ', rank, ': window', window, ' got', &
    got, ' fetched ', old, ' size ', size
  call MPI_WIN_FREE(win, ierr)
  if (win /= MPI_WIN_NULL) print *, 'win_free left a handle'
end subroutine one_sided

subroutine more_nonblocking(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, requests(3), i, mine(2), all(8), counts(4), displs(4), gathered(10)
  integer :: message, status(MPI_STATUS_SIZE), received(2), sent(2), table(4), swapped(4)
  logical :: flag
  mine = (/ rank, rank * rank /)
  do i = 1, 4
    counts(i) = i
    displs(i) = (i - 1) * i / 2
    table(i) = rank * 100 + i
  end do
  gathered = -1
  call MPI_IALLGATHER(mine, 2, MPI_INTEGER, all, 2, MPI_INTEGER, MPI_COMM_WORLD, requests(1), &
                      ierr)
  call MPI_IGATHERV((/ 7, 7, 7, 7 /), rank + 1, MPI_INTEGER, gathered, counts, displs, &
                    MPI_INTEGER, 3, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_IALLTOALL(table, 1, MPI_INTEGER, swapped, 1, MPI_INTEGER, MPI_COMM_WORLD, &
                     requests(3), ierr)
  call MPI_WAITALL(3, requests, MPI_STATUSES_IGNORE, ierr)
  if (rank == 3) print '(a,10(1x,i0))', 'igatherv', gathered
  ! A matched probe: the message is received by its handle.
  if (rank == 2) then
    sent = (/ 5, 6 /)
    call MPI_SEND(sent, 2, MPI_INTEGER, 0, 21, MPI_COMM_WORLD, ierr)
  else if (rank == 0) then
    call MPI_MPROBE(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, message, status, ierr)
    call MPI_MRECV(received, 2, MPI_INTEGER, message, status, ierr)
    print '(a,2(1x,i0),a,i0,a,l1)', 'mrecv', received, ' from ', status(MPI_SOURCE), &
      ' null ', message == MPI_MESSAGE_NULL
  end if
  call MPI_IPROBE(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
  print '(a,i0,a,8(1x,i0),a,4(1x,i0),a,l1)', 'nbc ', rank, ': allgather', all, ' alltoall', &
    swapped, ' nothing ', flag
  if (nranks /= 4) print *, 'calls: run on 4 ranks'
end subroutine more_nonblocking

! A keyval's copy function of the program's: the duplicate gets twice the value.
subroutine twice_copy(oldcomm, keyval, extra, value_in, value_out, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, value_in, value_out
  logical :: flag
  value_out = value_in * 2 + extra
  flag = oldcomm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID
  ierr = MPI_SUCCESS
end subroutine twice_copy

! Its delete function counts the deletions in a COMMON block.
subroutine counted_delete(comm, keyval, value, extra, ierr)
  use mpi
  implicit none
  integer :: comm, keyval, ierr, deleted
  integer(kind=MPI_ADDRESS_KIND) :: value, extra
  common /deletions/ deleted
  deleted = deleted + int(value) + 0 * (comm + keyval + int(extra))
  ierr = MPI_SUCCESS
end subroutine counted_delete

subroutine attributes(rank)
  use mpi
  implicit none
  integer, intent(in) :: rank
  integer :: ierr, mine, predefined, dup, deleted
  integer(kind=MPI_ADDRESS_KIND) :: value, extra, got, copied
  logical :: flag, flag2
  external twice_copy, counted_delete
  common /deletions/ deleted
  deleted = 0
  extra = 1
  call MPI_COMM_CREATE_KEYVAL(twice_copy, counted_delete, mine, extra, ierr)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, predefined, extra, ierr)
  value = 10 + rank
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, mine, value, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, predefined, value, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_GET_ATTR(dup, mine, got, flag, ierr)
  call MPI_COMM_GET_ATTR(dup, predefined, copied, flag2, ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, mine, ierr)
  call MPI_COMM_FREE_KEYVAL(mine, ierr)
  call MPI_COMM_FREE_KEYVAL(predefined, ierr)
  print '(a,i0,a,l1,1x,i0,a,l1,1x,i0,a,i0,a,l1)', 'attr ', rank, ': copied ', flag, got, &
    ' dup_fn ', flag2, copied, ' deleted ', deleted, ' freed ', mine == MPI_KEYVAL_INVALID
end subroutine attributes

! A generalized request's functions: the query says where the "message" came from.
subroutine query_fn(extra, status, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  status(MPI_SOURCE) = int(extra)
  status(MPI_TAG) = 77
  call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 3, ierr)
  call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
end subroutine query_fn

subroutine free_fn(extra, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr, freed
  common /grequests/ freed
  freed = freed + int(extra)
  ierr = MPI_SUCCESS
end subroutine free_fn

subroutine cancel_fn(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
  if (complete .and. extra < 0) ierr = MPI_ERR_OTHER
end subroutine cancel_fn

subroutine generalized(rank)
  use mpi
  implicit none
  integer, intent(in) :: rank
  integer :: ierr, request, status(MPI_STATUS_SIZE), count, freed, new_class, new_code, length
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: text
  external query_fn, free_fn, cancel_fn
  common /grequests/ freed
  freed = 0
  extra = 100 + rank
  call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
  call MPI_TEST(request, flag, status, ierr)
  call MPI_GREQUEST_COMPLETE(request, ierr)
  call MPI_WAIT(request, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
  call MPI_ADD_ERROR_CLASS(new_class, ierr)
  call MPI_ADD_ERROR_CODE(new_class, new_code, ierr)
  call MPI_ADD_ERROR_STRING(new_code, 'the model blew up', ierr)
  call MPI_ERROR_STRING(new_code, text, length, ierr)
  print '(a,i0,a,l1,a,i0,1x,i0,a,i0,a,i0,a,l1,1x,a)', 'greq ', rank, ': early ', flag, &
    ' status ', status(MPI_SOURCE), status(MPI_TAG), ' count ', count, ' freed ', freed, &
    ' classes ', new_class > MPI_ERR_LASTCODE .and. new_code /= new_class, trim(text)
end subroutine generalized
