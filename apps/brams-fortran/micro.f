C     micro: the cloud microphysics of one column of the BRAMS proxy's
C     Fortran twin, in fixed form as BRAMS's older physics is written.
C     Saturation adjustment bottom up (a saturated level iterates NWORK
C     Newton steps, the latent heat it releases carried to the level
C     above), then the fall-out from the top down: cloud water above
C     QC_FALL falls to the level below, what leaves level 1 is rain.
C     The order of operations is apps/brams/model.cpp's.
      SUBROUTINE MICCOL(NZ, NWORK, TH, QV, QC, RAIN)
      USE MEM_GRID, ONLY: R8
      USE MEM_PHYSICS, ONLY: QSAT0, LATENT, QC_FALL
      IMPLICIT NONE
      INTEGER NZ, NWORK
      REAL(R8) TH(NZ), QV(NZ), QC(NZ), RAIN
      INTEGER K, IT
      REAL(R8) CARRIED, T0, T, Q, QS, D, FALLING
C     Saturation vapour at potential temperature TT, level KK (from 0):
C     MEM_PHYSICS's QSAT as a statement function, expanded in place.
      INTEGER KK
      REAL(R8) QSAT, TT
      QSAT(TT, KK) = QSAT0 * EXP((-0.08D0) * DBLE(KK) + 0.06D0 * TT)
C
      CARRIED = 0.0D0
      DO 20 K = 1, NZ
         T0 = TH(K) + 0.5D0 * CARRIED
         CARRIED = 0.0D0
         IF (QV(K) .GT. QSAT(T0, K - 1)) THEN
            T = T0
            Q = QV(K)
            DO 10 IT = 1, NWORK
               QS = QSAT(T, K - 1)
               D = (Q - QS) / (1.0D0 + LATENT * 0.06D0 * QS)
               Q = Q - D
               T = T + LATENT * D
   10       CONTINUE
            QC(K) = QC(K) + (QV(K) - Q)
            QV(K) = Q
            CARRIED = T - T0
            TH(K) = T
         ELSE
            TH(K) = T0
         END IF
   20 CONTINUE
C
      FALLING = 0.0D0
      DO 30 K = NZ, 1, -1
         QC(K) = QC(K) + FALLING
         IF (QC(K) .GT. QC_FALL) THEN
            FALLING = 0.5D0 * (QC(K) - QC_FALL)
         ELSE
            FALLING = 0.0D0
         END IF
         QC(K) = QC(K) - FALLING
   30 CONTINUE
      RAIN = RAIN + FALLING
      RETURN
      END
