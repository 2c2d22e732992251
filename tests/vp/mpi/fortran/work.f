C     One step of a rank's work, in fixed form as old codes are: a
C     COMMON block, a SAVEd local and a DATA-initialized local, each of
C     which would mix the ranks' values if the ranks shared them.
      subroutine work(step)
      use state
      implicit none
      integer step, i
      integer ncalls
      double precision csum
      common /counters/ csum, ncalls
      integer seen
      save seen
      integer first
      data first /1/
      if (first .eq. 1) then
        seen = 0
        first = 0
      end if
      seen = seen + 1
      ncalls = ncalls + 1
      do 10 i = 1, 20000
        field(i) = field(i) + dble(my_rank + step)
   10 continue
      csum = csum + field(20000)
      acc = acc + dble(seen * (my_rank + 1))
      end
